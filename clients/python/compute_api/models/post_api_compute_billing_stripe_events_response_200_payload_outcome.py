from enum import StrEnum


class PostApiComputeBillingStripeEventsResponse200PayloadOutcome(StrEnum):
    APPLIED = "applied"
    DUPLICATE = "duplicate"
    IGNORED = "ignored"
    STALE = "stale"

    def __str__(self) -> str:
        return str(self.value)
