"""dpcore: the computation behind the privacy/utility explorer (no Streamlit in here)."""

from dpcore.validation import DataError, PrivacyLeakWarning, check_random_state

__all__ = ["DataError", "PrivacyLeakWarning", "check_random_state"]
__version__ = "0.1.0"
