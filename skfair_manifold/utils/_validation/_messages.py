"""The input checks' messages, as constants: the tests assert on the text a user sees."""

MSG_EMPTY = "{name} is empty: at least 2 rows are needed."

MSG_TOO_FEW_ROWS = "{name} has a single row: at least 2 rows are needed."

MSG_NOT_2D = "{name} must be 2-dimensional (n_samples, n_features); got shape {shape}."

MSG_NOT_1D = "{name} must be 1-dimensional (n_samples,); got shape {shape}."

MSG_NON_NUMERIC = (
    "{name} must be numeric; got dtype {dtype}. Encode categorical columns first "
    "(for example with sklearn.preprocessing.OneHotEncoder)."
)

MSG_NON_NUMERIC_COLUMNS = (
    "{name} must be numeric, but column(s) {columns} hold non-numeric values "
    "(for example {example!r}). Encode categorical columns first (for example with "
    "sklearn.preprocessing.OneHotEncoder), or leave them out."
)

MSG_NON_FINITE = "{name} contains NaN or infinity ({count} values); remove or impute them first."

MSG_MISSING = (
    "{name} contains missing values (NaN, None or NA){where}: {count} row(s), first at row "
    "{row}; remove or impute them first."
)

MSG_LENGTH = "{name} has {got} rows but {other} has {expected}; they must describe the same rows."

MSG_SINGLE_GROUP = (
    "sensitive attribute {attr!r} has a single group ({value!r}): a comparison between "
    "groups needs at least 2 (HFM's distance to the nearest row of another group, a gap "
    "between rates or means). Drop this attribute or pass data in which it takes at least 2 "
    "values."
)

MSG_NO_ROWS = (
    "{name} is empty: {what} needs rows of at least 2 groups. Pass the rows to measure "
    "(y_true, y_pred and sensitive_features of the same length, at least 2 rows)."
)

MSG_SENSITIVE_MISSING = (
    "sensitive attribute {attr!r} contains missing values (NaN, None or NA): {count} row(s), "
    "first at row {row}. A missing value is not a group: drop those rows, or fill them with "
    "an explicit value such as 'unknown'."
)

MSG_MIXED = (
    "{name} mixes values of types that cannot be compared ({types}); use one type per "
    "column (for example convert it with .astype(str))."
)

MSG_NO_SENSITIVE = "{name}: no sensitive column given; pass at least one."

MSG_LABEL_KINDS = (
    "y_true holds {true_kind} values and y_pred {pred_kind} values, so they cannot describe "
    "the same classes; give both with the same type (for example both as integers or both "
    "as strings)."
)

MSG_LABEL_NON_NUMERIC = (
    "{name} must be numeric here; got {dtype} values such as {example!r}."
)

MSG_WEIGHT_NON_NUMERIC = (
    "sample_weight must hold numbers, one non-negative weight per row; got values such as "
    "{example!r}."
)

MSG_WEIGHT_INVALID = (
    "sample_weight must be finite and non-negative; {count} weight(s) are not, first at "
    "row {row} ({value!r})."
)

MSG_COLUMN_MISSING = (
    "{name} column {col!r} is not in X ({where}).{hint} Give DataFrame column names or "
    "integer positions."
)

MSG_COLUMN_TWICE = "{name} names column {col!r} twice; name each column once."

MSG_NO_COLUMNS = "{name} is empty: name at least one column of X."

MSG_COLUMN_LIST_STRING = (
    "{name} must be a list of column names; got the string {value!r}, which would be read "
    "as a list of its characters. Write [{value!r}] for one column."
)

MSG_COMPLEX = "{name} holds complex numbers (dtype {dtype}); pass real values."

MSG_COLUMN_NAMES_CLASH = (
    "{name} has {count} columns named {label!r} ({names}); column names must be distinct "
    "as text, because results are labelled by them. Rename the columns, for example "
    "with frame.columns = [str(c) for c in frame.columns] after making them unique."
)
