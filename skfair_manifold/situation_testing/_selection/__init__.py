"""Who the testers are: the method registry, KNN-DD and its index, CBN-DD and its selection by tiers, K from the data, and the structure search (parents, weak parents, CI tests)."""
