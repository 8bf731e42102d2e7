"""attune_gpt_oss_yarn: ATTUNE's Megatron-Core layer spec for gpt-oss with YaRN rope.

The gpt-oss-20b recipe loads it with `--spec attune_gpt_oss_yarn get_gpt_oss_yarn_spec`.

PLACEHOLDER. The seed documents this catalog was built from name this file but do not include
its source, so its code is not here yet; the recipe cannot be run from this repository until the
author's file replaces this one. It fails loudly rather than run a different model.
"""


def get_gpt_oss_yarn_spec(*args, **kwargs):
    raise NotImplementedError(
        "patches/attune_gpt_oss_yarn.py is a placeholder: the original spec module is not in this "
        "repository yet (see the module docstring)"
    )
