"""The evaluator process: programs run behind the operating system's wall (wall.py) in a
process the frontends fork and talk to (process.py)."""
