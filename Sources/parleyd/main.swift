print("boot")
