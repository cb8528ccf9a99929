from enum import StrEnum


class PostApiComputeJobsSubmitResponse200PayloadState(StrEnum):
    CANCELLED = "cancelled"
    CANCELLING = "cancelling"
    FAILED = "failed"
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    TIMED_OUT = "timed-out"

    def __str__(self) -> str:
        return str(self.value)
