"""`kitchen`: food and catering (recipes, ingredients with nutrition, allergens, menus, catering orders)."""
