"""The fixed lists the video seed draws from: channels, their video topics, comment texts."""

from __future__ import annotations

# handle, title, category, country, created on, subscribers, owner, description, tags, topics
CHANNELS: list[tuple[str, str, str, str, str, int, str, str, list[str], list[str]]] = [
    ("@cookwithmara", "Cook with Mara", "Food", "Italy", "2019-04-02", 482000, "Mara Rossi",
     "Simple home cooking, one pot at a time.", ["cooking", "recipe", "easy dinner"],
     ["One-Pot Lentil Curry", "Sourdough for Beginners", "15-Minute Ramen", "Perfect Roast Chicken", "Vegan Brownies",
      "Fresh Pasta by Hand", "Thai Green Curry", "Weeknight Tacos", "Shakshuka Three Ways", "Best Banana Bread",
      "Mushroom Risotto", "Sunday Meal Prep"]),
    ("@techunboxed", "Tech Unboxed", "Science & Technology", "United States", "2017-09-15", 1260000, "Ben Park",
     "Honest reviews of phones, laptops and gadgets.", ["tech", "review", "gadgets"],
     ["Budget Phone Showdown", "Ultralight Laptop Review", "Noise-Cancelling Earbuds Compared", "Smart Home Starter Kit",
      "Is This Tablet Worth It?", "Mechanical Keyboards Explained", "Best Webcams of the Year", "E-Reader Face-Off",
      "Foldable Phone, Six Months Later", "Mini PC Build", "Camera Phone Blind Test", "Smartwatch Battery Test"]),
    ("@trailtales", "Trail Tales", "Travel & Events", "Norway", "2020-06-21", 214000, "Hana Eriksen",
     "Long walks in wild places.", ["hiking", "travel", "outdoors"],
     ["Hiking the Lofoten Islands", "Three Days on the Kungsleden", "Winter Camping Basics", "Packing List for Long Trails",
      "Fjords by Kayak", "The Dolomites in Autumn", "Solo Hiking Safety", "Iceland Ring Road Tips", "Cheap Gear That Lasts",
      "Sleeping Under the Northern Lights", "Scottish Highlands Bothy Trip", "How I Plan a Route"]),
    ("@codecraft", "CodeCraft Academy", "Education", "India", "2018-01-10", 893000, "Arjun Singh",
     "Programming lessons from first steps to production.", ["programming", "tutorial", "python"],
     ["Python in 60 Minutes", "SQL Joins Explained", "Git for Beginners", "Build a REST API", "Async Python Demystified",
      "Docker Crash Course", "Unit Testing with pytest", "Data Structures Refresher", "Regular Expressions Made Easy",
      "Intro to Machine Learning", "Debugging Like a Pro", "Clean Code Habits"]),
    ("@fitwithleo", "Fit with Leo", "Howto & Style", "Brazil", "2021-02-01", 356000, "Leo Santos",
     "Home workouts that fit a busy day.", ["fitness", "workout", "home gym"],
     ["20-Minute Full Body Workout", "Mobility Routine for Desk Workers", "Beginner Running Plan", "Kettlebell Basics",
      "No-Equipment Core Workout", "Stretching After Work", "Healthy Snacks on a Budget", "Pull-Up Progression",
      "Morning Yoga Flow", "HIIT for Beginners", "Fix Your Posture", "Rest Day Recovery"]),
    ("@indiegamelab", "Indie Game Lab", "Gaming", "Canada", "2019-11-30", 128000, "Chloe Martin",
     "Making small games, devlogs and reviews of hidden gems.", ["gamedev", "indie games", "devlog"],
     ["Devlog 1: A New Game", "Pixel Art in an Afternoon", "Top 10 Hidden Indie Gems", "Devlog 2: Combat System",
      "How I Compose Game Music", "Game Jam in 48 Hours", "Devlog 3: Level Design", "Why Small Games Win",
      "Devlog 4: Playtesting", "Shaders for Beginners", "Launching on a Budget", "Devlog 5: Release Day"]),
]  # fmt: skip

POSITIVE = [
    "Great video, thanks!",
    "This helped me a lot.",
    "Best explanation I have found so far.",
    "Tried this today and it worked perfectly.",
    "Love the editing on this one.",
    "Subscribed after this video.",
    "Clear, calm and to the point. More like this please!",
    "Watched it twice, still learned something new.",
]
QUESTIONS = [
    "What camera do you use for these shots?",
    "Could you do a follow-up on this?",
    "Where can I find the full list?",
    "Does this work for beginners too?",
    "How long did this take you in total?",
    "Any alternative if I don't have the gear?",
]
NEGATIVE = [
    "The audio is too quiet in the first half.",
    "Too long, get to the point.",
    "The music is louder than your voice.",
    "This did not work for me at all.",
    "Clickbait title.",
]
SPAM = [
    "Check out my channel for FREE giveaways!!!",
    "Earn $500 a day from home, link in my profile",
    "Crypto doubling offer, message me now",
    "sub4sub anyone?? I always sub back",
]
REPLIES = [
    "Thanks so much for watching!",
    "Great question, I'll cover it in a future video.",
    "Glad it helped!",
    "Thanks for the feedback, noted for next time.",
    "The full list is in the description.",
]
PLAYLISTS = [
    (1, "Quick Weeknight Dinners", [2, 7, 0, 9]), (1, "Baking Basics", [1, 4, 10]),
    (2, "Phone Reviews", [0, 8, 10]), (2, "Desk Setup", [5, 6, 9, 2]),
    (3, "Scandinavia", [0, 1, 4, 9]), (4, "Python Path", [0, 4, 6, 10, 11]), (4, "Tools Every Developer Needs", [2, 5, 10]),
    (5, "Start Here", [0, 2, 4, 9]), (6, "Devlog Series", [0, 3, 6, 8, 11]),
]  # fmt: skip
