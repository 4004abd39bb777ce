# The tests import oracle.py from this folder; the package comes from PYTHONPATH (the build tree).
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
