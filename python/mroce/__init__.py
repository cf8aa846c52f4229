"""mroce: Python tooling for the MetaRoCE conformance suite.

mroce.scapy  Scapy layers for every MetaRoCE header (pure Python, no build needed).
mroce.codec  The C++ wire codec (reference/wire) through the pybind11 module _mroce.
"""

__all__ = ["scapy", "codec"]
