import RewindJSON
print("rewind-bench")
