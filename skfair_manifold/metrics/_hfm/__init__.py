"""HFM (Eq. 8): hfm_max, hfm_avg and hfm_report from the row distances, their options, witnesses and bootstrap intervals."""
