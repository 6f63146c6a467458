"""Initialise the Bambu Client"""
# TODO: Once complete, move pybambu to PyPi
from .bambu_client import BambuClient
from .bambu_cloud  import BambuCloud
