"""Reader of the codec's shared test vectors (reference/wire/tests/vectors/*.hex)."""

from conftest import VECTORS_DIR


def load_vectors(pattern="*.hex"):
    """[(file, description, bytes)] from reference/wire/tests/vectors: one frame per hex line,
    described by the comment line just before it."""
    out = []
    for path in sorted(VECTORS_DIR.glob(pattern)):
        desc = ""
        for line in path.read_text().splitlines():
            line = line.strip()
            if line.startswith("#"):
                desc = line[1:].strip()
            elif line:
                out.append((path.name, desc, bytes.fromhex(line)))
    return out
