"""Releases: for each page that publishes, one module ``dpcore.releases.<page>`` that holds

* ``publish``: the release builder, from the user's public choices and the private data,
  spending through the session's ledger (the accountant the caller passes) before any noise is
  drawn, refused over budget or when the public set was derived from the private one, its
  noise from fresh OS entropy through the float-safe samplers (never seeded, never cached),
  with what the data owner hands over (the released table or model, as downloaded);
* ``DECISION``: the release as the decision page reads it
  (:class:`~dpcore.releases.base.Release`: its utility, the step its audit attacks);
* ``AUDIT_CASES`` and ``AUDIT_FAULTS``: its audit cases (:class:`~dpcore.audit.case.AuditCase`
  builders at a claimed ε) and which of them are broken on purpose.

:mod:`dpcore.releases.registry` lists the modules (one line per page) and gathers
:data:`~dpcore.decision.releases.RELEASES` and the releases' audit cases from them;
:mod:`dpcore.releases.catalogue` puts the whole audit catalogue together (the mechanisms'
cases of :mod:`dpcore.audit.cases`, then the releases'). A page only collects the choices,
calls ``publish`` through its Publish button and shows what it returns.
"""
