"""NNI's trial API on Cube (``cube.trial``): NNI trial code runs unchanged.

    import nni
    params = nni.get_next_parameter()
    nni.report_intermediate_result(0.8)
    nni.report_final_result({"default": 0.9, "loss": 0.1})

Only the trial side of NNI is here (no tuners, no experiments): install
either this or NNI itself in one environment, not both.
"""
from cube.trial import (get_current_parameter, get_experiment_id, get_next_parameter,
                        get_sequence_id, get_trial_id, report_final_result,
                        report_intermediate_result)

__version__ = "cube"
__all__ = ["get_next_parameter", "get_current_parameter", "report_intermediate_result",
           "report_final_result", "get_experiment_id", "get_trial_id", "get_sequence_id"]
