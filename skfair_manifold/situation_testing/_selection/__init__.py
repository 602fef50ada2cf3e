"""Who the testers are: the method registry, KNN-DD, CBN-DD, K from the data, the graph."""
