"""The name of a table's summary row: "all attributes", unless an attribute is called so.

The group report, its plots and the command line's tables share it.
"""

#: the label the summary row takes when no attribute is called so
ALL_ATTRIBUTES = "all attributes"


def summary_label(attributes):
    """``"all attributes"``, or a variant that no attribute is called."""
    taken = {str(a) for a in attributes}
    label, k = ALL_ATTRIBUTES, 1
    while label in taken:
        label = f"{ALL_ATTRIBUTES} (summary{'' if k == 1 else f' {k}'})"
        k += 1
    return label
