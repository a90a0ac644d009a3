"""The grey-box sensitivity check of every release, one module per job (the package's face
imports none of them):

* :mod:`dpcore.releases.sensitivity.checks`: the names and the check of one
  (:func:`~dpcore.releases.sensitivity.checks.release_names`,
  :func:`~dpcore.releases.sensitivity.checks.check_sensitivity`, also read as
  ``dpcore.audit.release_names`` and ``dpcore.audit.check_sensitivity``), and the variants
  broken on purpose;
* :mod:`dpcore.releases.sensitivity.primer`, :mod:`dpcore.releases.sensitivity.models` and
  :mod:`dpcore.releases.sensitivity.subset`: the probes of the releases' own code.

The machinery (a probe, the check of one) is :mod:`dpcore.audit.sensitivity`.
"""
