"""The Streamlit app layer: shared sidebar, caching wrappers, figures and error display.

``dpcore`` holds the computation and never imports Streamlit; everything Streamlit-specific that
more than one page needs lives here.
"""
