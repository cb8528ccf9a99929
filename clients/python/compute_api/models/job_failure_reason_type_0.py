from enum import StrEnum


class JobFailureReasonType0(StrEnum):
    AGENT_ERROR = "agent_error"
    AGENT_LOST = "agent_lost"
    BILLING_HARD_CAP = "billing.hard_cap"
    CANCELLED_IN_TEMPORAL = "cancelled in Temporal"
    EXIT_CODE = "exit_code"
    OUT_OF_MEMORY = "out_of_memory"
    TIMEOUT = "timeout"

    def __str__(self) -> str:
        return str(self.value)
