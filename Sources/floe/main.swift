print("floe")
