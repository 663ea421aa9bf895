"""The strategies that are no agent's: `noop` (the baseline that keeps everything),
`observation_masking` (old tool outputs become placeholders) and `pipeline` (strategies chained).

Every module here is imported when ``ctxlab.strategies`` is, so each registers itself.
"""

from ctxlab.strategies.general import noop, observation_masking, pipeline  # noqa: F401  (registers)
