"""The fixed food catalog: ingredients (nutrition per 100 g, cost per kg, allergens) and 120
recipes (cuisine, course, ingredients). Quantities come from `PORTION_G`: grams per serving by
ingredient, or by category when an ingredient has no entry of its own."""

from __future__ import annotations

ALLERGENS = ["gluten", "dairy", "egg", "fish", "shellfish", "peanuts", "nuts", "soy", "sesame", "celery", "mustard", "sulphites"]  # fmt: skip

# name|category|animal|kcal|protein|fat|carbs|cost per kg|allergens
INGREDIENTS = """
flour|grain||364|10|1|76|1.2|gluten
pasta|grain||371|13|1.5|75|2.5|gluten
rice|grain||360|7|0.6|79|2.0|
bread|grain||265|9|3.2|49|3.0|gluten
tortilla|grain||310|8|7|52|4.0|gluten
rice noodles|grain||364|6|0.6|80|3.5|
wheat noodles|grain|egg|360|12|2|72|4.0|gluten,egg
couscous|grain||376|13|0.6|77|3.0|gluten
puff pastry|grain|dairy|558|7|38|46|6.0|gluten,dairy
breadcrumbs|grain||395|13|5|72|3.0|gluten
potato|vegetable||77|2|0.1|17|1.0|
onion|vegetable||40|1.1|0.1|9|1.2|
garlic|vegetable||149|6.4|0.5|33|6.0|
tomato|vegetable||18|0.9|0.2|3.9|2.5|
canned tomatoes|vegetable||32|1.6|0.3|7|2.2|
carrot|vegetable||41|0.9|0.2|10|1.1|
celery|vegetable||16|0.7|0.2|3|2.0|celery
bell pepper|vegetable||31|1|0.3|6|3.5|
spinach|vegetable||23|2.9|0.4|3.6|6.0|
zucchini|vegetable||17|1.2|0.3|3.1|2.8|
eggplant|vegetable||25|1|0.2|6|2.8|
mushroom|vegetable||22|3.1|0.3|3.3|6.5|
broccoli|vegetable||34|2.8|0.4|7|3.5|
cauliflower|vegetable||25|1.9|0.3|5|3.0|
cabbage|vegetable||25|1.3|0.1|6|1.0|
cucumber|vegetable||15|0.7|0.1|3.6|2.0|
lettuce|vegetable||15|1.4|0.2|2.9|4.0|
green beans|vegetable||31|1.8|0.2|7|4.5|
avocado|vegetable||160|2|15|9|7.0|
corn|vegetable||86|3.2|1.2|19|2.5|
peas|vegetable||81|5.4|0.4|14|3.0|
chickpeas|legume||164|8.9|2.6|27|3.0|
lentils|legume||116|9|0.4|20|2.8|
black beans|legume||132|8.9|0.5|24|2.8|
edamame|legume||121|12|5|9|6.0|soy
tofu|protein||76|8|4.8|1.9|5.0|soy
chicken breast|protein|meat|165|31|3.6|0|9.0|
chicken thigh|protein|meat|209|26|11|0|7.0|
beef mince|protein|meat|250|26|15|0|11.0|
beef steak|protein|meat|271|25|19|0|24.0|
pork shoulder|protein|meat|236|17|18|0|8.5|
lamb|protein|meat|282|25|20|0|18.0|
bacon|protein|meat|541|37|42|1.4|12.0|
salmon|protein|fish|208|20|13|0|22.0|fish
cod|protein|fish|82|18|0.7|0|16.0|fish
tuna|protein|fish|132|28|1|0|18.0|fish
prawns|protein|fish|99|24|0.3|0.2|20.0|shellfish
mussels|protein|fish|86|12|2.2|3.7|8.0|shellfish
egg|protein|egg|155|13|11|1.1|4.5|egg
milk|dairy|dairy|61|3.2|3.3|4.8|1.1|dairy
butter|dairy|dairy|717|0.9|81|0.1|9.0|dairy
cream|dairy|dairy|340|2.1|36|2.8|5.0|dairy
yogurt|dairy|dairy|61|3.5|3.3|4.7|3.0|dairy
parmesan|dairy|dairy|431|38|29|4.1|22.0|dairy
mozzarella|dairy|dairy|280|28|17|3.1|10.0|dairy
feta|dairy|dairy|264|14|21|4.1|11.0|dairy
cheddar|dairy|dairy|403|25|33|1.3|12.0|dairy
paneer|dairy|dairy|321|21|25|3.6|11.0|dairy
coconut milk|pantry||230|2.3|24|6|4.0|
olive oil|pantry||884|0|100|0|9.0|
vegetable oil|pantry||884|0|100|0|2.5|
sesame oil|pantry||884|0|100|0|12.0|sesame
soy sauce|pantry||53|8|0.6|4.9|5.0|soy,gluten
fish sauce|pantry|fish|35|5|0|3.6|6.0|fish
miso|pantry||199|12|6|26|9.0|soy
tahini|pantry||595|17|54|21|10.0|sesame
peanut butter|pantry||588|25|50|20|6.0|peanuts
sugar|pantry||387|0|0|100|1.0|
honey|pantry||304|0.3|0|82|8.0|
dark chocolate|pantry|dairy|546|4.9|31|61|12.0|dairy,soy
cocoa powder|pantry||228|20|14|58|10.0|
rice vinegar|pantry||18|0|0|0.1|4.0|
vegetable stock|pantry||5|0.2|0.1|0.7|1.5|celery
chicken stock|pantry|meat|7|1|0.2|0.4|1.8|celery
white wine|pantry||82|0.1|0|2.6|8.0|sulphites
mustard|pantry||66|4.4|4|5.8|4.0|mustard
salt|pantry||0|0|0|0|0.6|
peanuts|nut||567|26|49|16|6.0|peanuts
almonds|nut||579|21|50|22|14.0|nuts
walnuts|nut||654|15|65|14|16.0|nuts
cashews|nut||553|18|44|30|15.0|nuts
lemon|fruit||29|1.1|0.3|9|3.0|
lime|fruit||30|0.7|0.2|11|3.5|
apple|fruit||52|0.3|0.2|14|2.2|
mango|fruit||60|0.8|0.4|15|4.0|
berries|fruit||50|0.8|0.4|12|9.0|
ginger|spice||80|1.8|0.8|18|5.0|
chili|spice||40|1.9|0.4|9|8.0|
curry paste|spice||120|2.5|6|14|9.0|
spice mix|spice||300|12|12|50|20.0|mustard
basil|herb||23|3.2|0.6|2.7|18.0|
cilantro|herb||23|2.1|0.5|3.7|15.0|
parsley|herb||36|3|0.8|6|12.0|
"""

PORTION_G = {
    "grain": 80, "vegetable": 70, "legume": 80, "protein": 130, "dairy": 40, "pantry": 10, "nut": 20,
    "fruit": 60, "spice": 3, "herb": 4,
    "flour": 60, "puff pastry": 60, "breadcrumbs": 20, "garlic": 5, "onion": 50, "egg": 55, "bacon": 30,
    "butter": 12, "milk": 80, "cream": 40, "parmesan": 15, "canned tomatoes": 100, "coconut milk": 80,
    "vegetable stock": 150, "chicken stock": 150, "white wine": 40, "sugar": 20, "lemon": 15, "lime": 15,
    "celery": 30, "salt": 1, "tortilla": 70, "chili": 3, "ginger": 5, "curry paste": 15, "tahini": 15,
    "peanut butter": 15, "dark chocolate": 40, "cocoa powder": 8, "honey": 12,
}  # fmt: skip

# cuisine -> "name|course|ingredient, ingredient, ..."
RECIPES = {
    "Italian": """
Margherita Pizza|main|flour, canned tomatoes, mozzarella, basil, olive oil, salt
Spaghetti Carbonara|main|pasta, bacon, egg, parmesan, salt
Penne Arrabbiata|main|pasta, canned tomatoes, garlic, chili, olive oil, basil
Lasagne al Forno|main|pasta, beef mince, canned tomatoes, onion, milk, butter, flour, parmesan
Mushroom Risotto|main|rice, mushroom, onion, vegetable stock, parmesan, butter, white wine
Minestrone|soup|canned tomatoes, carrot, celery, zucchini, pasta, vegetable stock, olive oil
Bruschetta|starter|bread, tomato, garlic, basil, olive oil
Caprese Salad|salad|tomato, mozzarella, basil, olive oil
Chicken Piccata|main|chicken breast, flour, lemon, butter, white wine, chicken stock
Eggplant Parmigiana|main|eggplant, canned tomatoes, mozzarella, parmesan, basil, olive oil
Pesto Pasta|main|pasta, basil, parmesan, olive oil, garlic, walnuts
Tiramisu|dessert|egg, sugar, cream, cocoa powder, flour
Panna Cotta|dessert|cream, milk, sugar, berries
Focaccia|side|flour, olive oil, salt
Arancini|starter|rice, mozzarella, breadcrumbs, egg, parmesan, vegetable oil""",
    "Mexican": """
Chicken Tacos|main|tortilla, chicken thigh, onion, lime, cilantro, chili
Beef Burrito|main|tortilla, beef mince, rice, black beans, cheddar, tomato
Guacamole|starter|avocado, lime, onion, cilantro, tomato, chili
Black Bean Soup|soup|black beans, onion, garlic, vegetable stock, chili, lime
Chicken Enchiladas|main|tortilla, chicken breast, canned tomatoes, cheddar, onion, chili
Vegetable Fajitas|main|tortilla, bell pepper, onion, zucchini, lime, spice mix, vegetable oil
Pico de Gallo|side|tomato, onion, cilantro, lime, chili
Mexican Rice|side|rice, canned tomatoes, onion, garlic, vegetable stock
Elote|side|corn, butter, cheddar, chili, lime
Pozole|soup|pork shoulder, corn, onion, garlic, chili, chicken stock
Quesadillas|starter|tortilla, cheddar, bell pepper, onion
Fish Tacos|main|tortilla, cod, cabbage, lime, yogurt, flour
Churros|dessert|flour, sugar, butter, egg, vegetable oil
Tres Leches Cake|dessert|flour, egg, sugar, milk, cream
Prawn Ceviche|starter|prawns, lime, tomato, onion, cilantro, avocado""",
    "Indian": """
Chicken Tikka Masala|main|chicken breast, yogurt, canned tomatoes, cream, onion, spice mix, ginger, garlic
Chana Masala|main|chickpeas, canned tomatoes, onion, ginger, garlic, spice mix, vegetable oil
Dal Tadka|main|lentils, onion, tomato, garlic, spice mix, butter
Palak Paneer|main|spinach, paneer, onion, ginger, garlic, cream, spice mix
Vegetable Biryani|main|rice, carrot, peas, onion, yogurt, spice mix, butter
Lamb Rogan Josh|main|lamb, yogurt, onion, tomato, spice mix, ginger, garlic
Butter Chicken|main|chicken thigh, butter, cream, canned tomatoes, spice mix, ginger, cashews
Samosas|starter|flour, potato, peas, onion, spice mix, vegetable oil
Onion Bhaji|starter|onion, chickpeas, spice mix, vegetable oil
Aloo Gobi|side|potato, cauliflower, onion, tomato, spice mix, vegetable oil
Raita|side|yogurt, cucumber, cilantro
Naan|side|flour, yogurt, butter, salt
Mulligatawny Soup|soup|lentils, carrot, apple, coconut milk, vegetable stock, curry paste
Mango Lassi|dessert|mango, yogurt, milk, sugar
Kheer|dessert|rice, milk, sugar, almonds""",
    "Japanese": """
Chicken Teriyaki|main|chicken thigh, soy sauce, honey, ginger, rice
Salmon Sushi Rolls|main|rice, salmon, cucumber, avocado, rice vinegar
Miso Soup|soup|miso, tofu, vegetable stock, edamame
Vegetable Tempura|starter|flour, egg, zucchini, carrot, vegetable oil
Beef Gyudon|main|beef steak, onion, rice, soy sauce, egg, sugar
Chicken Katsu Curry|main|chicken breast, breadcrumbs, egg, flour, curry paste, rice, carrot, potato
Pork Ramen|main|wheat noodles, pork shoulder, egg, soy sauce, chicken stock, ginger
Gyoza|starter|flour, pork shoulder, cabbage, ginger, soy sauce, sesame oil
Salted Edamame|starter|edamame, salt
Okonomiyaki|main|flour, cabbage, egg, bacon, soy sauce
Agedashi Tofu|starter|tofu, flour, soy sauce, ginger, vegetable oil
Cucumber Sunomono|salad|cucumber, rice vinegar, sugar, sesame oil
Yakitori|starter|chicken thigh, soy sauce, honey, onion
Mochi Ice Cream|dessert|rice, sugar, cream, milk
Salmon Teriyaki|main|salmon, soy sauce, honey, ginger, rice, broccoli""",
    "Thai": """
Pad Thai|main|rice noodles, prawns, egg, peanuts, lime, fish sauce, sugar
Green Curry with Chicken|main|chicken thigh, coconut milk, curry paste, zucchini, basil, fish sauce, rice
Tom Yum Soup|soup|prawns, mushroom, lime, chili, fish sauce, lemon
Tom Kha Gai|soup|chicken breast, coconut milk, mushroom, lime, ginger, fish sauce
Massaman Beef Curry|main|beef steak, coconut milk, curry paste, potato, peanuts, onion
Thai Slaw|salad|cabbage, carrot, lime, fish sauce, peanuts, chili
Thai Basil Chicken|main|chicken thigh, basil, chili, garlic, soy sauce, rice, egg
Fresh Spring Rolls|starter|rice noodles, carrot, lettuce, prawns, cilantro
Chicken Satay|starter|chicken thigh, peanut butter, coconut milk, soy sauce, lime
Red Curry Tofu|main|tofu, coconut milk, curry paste, bell pepper, basil, rice
Thai Fried Rice|main|rice, egg, onion, soy sauce, fish sauce, peas
Larb Gai|salad|chicken breast, lime, fish sauce, onion, cilantro, chili, lettuce
Mango Sticky Rice|dessert|rice, mango, coconut milk, sugar
Coconut Custard|dessert|coconut milk, egg, sugar
Thai Cucumber Salad|salad|cucumber, onion, chili, rice vinegar, sugar, peanuts""",
    "French": """
Coq au Vin|main|chicken thigh, white wine, bacon, mushroom, onion, carrot, butter
Beef Bourguignon|main|beef steak, white wine, bacon, mushroom, onion, carrot, chicken stock
French Onion Soup|soup|onion, butter, bread, cheddar, chicken stock, white wine
Ratatouille|main|eggplant, zucchini, bell pepper, tomato, onion, olive oil, basil
Quiche Lorraine|main|puff pastry, egg, cream, bacon, cheddar
Nicoise Salad|salad|tuna, egg, potato, lettuce, tomato, olive oil, mustard
Croque Monsieur|main|bread, cheddar, butter, milk, flour, bacon
Gratin Dauphinois|side|potato, cream, milk, garlic, butter
Moules Marinieres|main|mussels, white wine, butter, onion, garlic, cream
Creme Brulee|dessert|cream, egg, sugar
Chocolate Mousse|dessert|dark chocolate, egg, sugar, cream
Tarte Tatin|dessert|apple, puff pastry, sugar, butter
Vichyssoise|soup|potato, onion, cream, vegetable stock, butter
Salmon en Papillote|main|salmon, lemon, zucchini, butter, white wine
Green Beans Amandine|side|green beans, almonds, butter, lemon""",
    "Mediterranean": """
Hummus|starter|chickpeas, tahini, lemon, garlic, olive oil
Falafel|main|chickpeas, onion, cilantro, garlic, spice mix, vegetable oil, flour
Greek Salad|salad|tomato, cucumber, feta, onion, olive oil
Moussaka|main|eggplant, lamb, canned tomatoes, onion, milk, butter, flour, parmesan
Shakshuka|main|egg, canned tomatoes, bell pepper, onion, spice mix, olive oil
Tabbouleh|salad|couscous, tomato, cucumber, lemon, olive oil, parsley
Baba Ganoush|starter|eggplant, tahini, lemon, garlic, olive oil
Chicken Souvlaki|main|chicken breast, yogurt, lemon, garlic, olive oil, bread
Lentil Soup|soup|lentils, carrot, onion, celery, vegetable stock, lemon
Spanakopita|starter|puff pastry, spinach, feta, egg, onion
Lamb Kofta|main|lamb, onion, spice mix, parsley, yogurt
Tzatziki|side|yogurt, cucumber, garlic, olive oil
Stuffed Peppers|main|bell pepper, rice, beef mince, tomato, onion
Baklava|dessert|puff pastry, walnuts, honey, butter, sugar
Roasted Vegetable Couscous|side|couscous, zucchini, bell pepper, onion, olive oil, chickpeas""",
    "American": """
Classic Cheeseburger|main|beef mince, bread, cheddar, lettuce, tomato, onion
Buttermilk Fried Chicken|main|chicken thigh, flour, milk, egg, spice mix, vegetable oil
Mac and Cheese|main|pasta, cheddar, milk, butter, flour
Seafood Chowder|soup|cod, prawns, potato, onion, cream, bacon, celery
BBQ Pulled Pork|main|pork shoulder, onion, sugar, spice mix, canned tomatoes, bread
Caesar Salad|salad|lettuce, parmesan, bread, egg, lemon, olive oil, mustard
Coleslaw|side|cabbage, carrot, yogurt, mustard, sugar
Cornbread|side|corn, flour, milk, egg, butter, sugar
Chicken Noodle Soup|soup|chicken breast, wheat noodles, carrot, celery, onion, chicken stock
Buffalo Wings|starter|chicken thigh, butter, chili, vegetable oil
Pancakes with Berries|dessert|flour, milk, egg, sugar, butter, berries
Apple Pie|dessert|flour, butter, apple, sugar
Brownies|dessert|dark chocolate, butter, sugar, egg, flour, walnuts
Cobb Salad|salad|chicken breast, bacon, egg, avocado, lettuce, tomato, cheddar
Beef Chili|main|beef mince, black beans, canned tomatoes, onion, chili, spice mix
Apple Crumble|dessert|apple, flour, sugar, vegetable oil
Baked Apples with Walnuts|dessert|apple, walnuts, sugar, lemon
Peanut Brittle|dessert|peanuts, sugar, salt""",
}
# Vegan desserts added to the card later, each lighter than the other vegan dessert and holding
# one of gluten, nuts and peanuts (so each of those allergens excludes a dish a lunch without it
# would otherwise take). The seed gives them random numbers of their own, so the quantities and
# times of the other recipes stay as they were.
LATER_RECIPES = {"Apple Crumble", "Baked Apples with Walnuts", "Peanut Brittle"}

# name, description, [recipe names]; each serves one portion per guest (sides and starters half).
MENUS = [
    ("Winter Wedding Buffet", "Three-course buffet for winter weddings", ["Bruschetta", "French Onion Soup", "Beef Bourguignon", "Ratatouille", "Gratin Dauphinois", "Creme Brulee"]),
    ("Mediterranean Corporate Lunch", "Light working lunch, vegetarian-friendly", ["Hummus", "Greek Salad", "Chicken Souvlaki", "Falafel", "Baklava"]),
    ("Vegan Tasting Menu", "Fully plant-based tasting menu", ["Guacamole", "Miso Soup", "Chana Masala", "Red Curry Tofu", "Roasted Vegetable Couscous"]),
    ("Railway Centenary Gala", "Gala dinner for the Meridian Main Line centenary in Aldermoor", ["Prawn Ceviche", "Vichyssoise", "Salmon en Papillote", "Green Beans Amandine", "Chocolate Mousse"]),
    ("Conference Street Food", "Standing reception with street food stations", ["Chicken Tacos", "Vegetable Fajitas", "Gyoza", "Chicken Satay", "Churros"]),
    ("Indian Banquet", "Sharing banquet with breads and rice", ["Samosas", "Butter Chicken", "Palak Paneer", "Dal Tadka", "Naan", "Mango Lassi"]),
    ("Graduation Garden Party", "Afternoon party for Aldermoor University graduates", ["Caprese Salad", "Arancini", "Coleslaw", "BBQ Pulled Pork", "Apple Pie"]),
    ("Nut-Free School Lunch", "Lunch menu without nuts or peanuts", ["Minestrone", "Mac and Cheese", "Chicken Teriyaki", "Panna Cotta"]),
    ("Thai Street Lunch", "Quick lunch from the wok, with a peanut cucumber salad", ["Thai Cucumber Salad", "Thai Basil Chicken", "Mango Sticky Rice"]),
]  # fmt: skip
# Menus put on the card after the seeded orders were taken: no seeded order uses them. The Thai
# Street Lunch is the cheapest menu and holds peanuts, so "the cheapest menu without nuts or
# peanuts" is not simply the cheapest one.
NEW_MENUS = {"Thai Street Lunch"}

CLIENTS = [
    ("Aldermoor University", "events@aldermoor-univ.example"), ("Northam Institute of Technology", "hospitality@nit.example"),
    ("Meridian Rail Heritage Trust", "gala@meridianrail.example"), ("Kestrel Bay Council", "catering@kestrelbay.example"),
    ("Thornbury Research Lab", "office@thornbury-lab.example"), ("Harbour Logistics Ltd", "admin@harbourlogistics.example"),
    ("Larkspur Labs", "people@larkspurlabs.example"), ("Southport Harbour University", "events@shu.example"),
    ("Greenmarsh Primary School", "office@greenmarsh-school.example"), ("Brightwater Film Festival", "team@brightwaterfilm.example"),
    ("Okafor & Singh Architects", "studio@okafor-singh.example"), ("Westhaven Sailing Club", "secretary@westhaven-sailing.example"),
]  # fmt: skip
