"""mroce: Python tooling for the MetaRoCE conformance suite.

mroce.scapy     Scapy layers for every MetaRoCE header (pure Python, no build needed).
mroce.codec     The C++ wire codec (reference/wire) through the pybind11 module _mroce.
mroce.campaign  mroce.run: a suite against a DUT through the harness's campaign library (_mroce).
"""

from mroce.campaign import run  # noqa: F401  (imports _mroce only when called)

__all__ = ["scapy", "codec", "campaign", "run"]
