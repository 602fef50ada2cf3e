"""The scorers' messages, as constants that the tests assert on."""


MSG_HFM_NO_WEIGHTS = (
    "{scorer} takes no sample_weight: HFM (Eq. 8) is a distance between sets of rows, which "
    "the paper defines without row weights. Score without sample_weight (scikit-learn's "
    "searches pass it only to scorers that take it), or use a group scorer such as "
    "demographic_parity_scorer, which weights rows."
)

MSG_NO_SENSITIVE = (
    "{scorer} needs the sensitive attributes of the rows it scores and received none. "
    "{state} Either\n"
    "  (a) enable metadata routing and pass the attributes to fit:\n"
    "        import sklearn; sklearn.set_config(enable_metadata_routing=True)\n"
    "        GridSearchCV(est, grid, scoring=...).fit(X, y, sensitive_features=A)\n"
    "        cross_validate(est, X, y, scoring=..., params={{'sensitive_features': A}})\n"
    "        scorer(fitted_est, X, y, sensitive_features=A)   # a direct call\n"
    "  or (b) keep the sensitive columns in X and build the scorer with\n"
    "        {factory}sensitive=[<column names or positions>]), which needs no routing."
)

MSG_STATE_OFF = "Metadata routing is disabled, so nothing reaches a scorer but X and y."

MSG_STATE_ON = ("Metadata routing is enabled, but no sensitive_features were passed to "
                "fit (or to cross_validate's params).")

MSG_BOTH = (
    "{scorer} takes the sensitive columns from X (sensitive={sensitive!r}); do not also "
    "pass sensitive_features."
)

MSG_CONTINUOUS_RESPONSE = (
    "{metric} measures a regressor's predictions (a quantity), which come from predict; "
    "response_method and threshold are for a classifier's scores."
)
MSG_REGRESSION = (
    "{scorer}: y_true is a continuous (regression) target, but {metric} compares the rate of "
    "one class across groups. Use it with a classifier's labels; for a regressor, the "
    "scorers of a quantity (mean_prediction_difference_scorer, error_difference_scorer, "
    "bounded_group_loss_scorer, distribution_distance_scorer) or HFM's (make_hfm_scorer)."
)

MSG_NOT_BINARY_SCORES = (
    "{scorer} thresholds {response_method} into two classes, but the estimator has "
    "{n_classes} classes ({classes}); use response_method='predict' with pos_label= for "
    "multi-class targets."
)

MSG_RESPONSE = (
    "response_method must be 'predict', 'predict_proba' or 'decision_function'; got "
    "{value!r}."
)

MSG_FEATURES = "features must be 'transformed' or 'input'; got {value!r}."

MSG_THRESHOLD = (
    "threshold={value!r} needs response_method='predict_proba' or 'decision_function' "
    "(predict already returns classes)."
)

MSG_SHARED_REQUEST = (
    "{scorer} is a ready scorer shared by the whole process: set_score_request would change "
    "its routing for every search that uses it. Build your own and set its request there: "
    "{factory}).set_score_request(...)."
)
