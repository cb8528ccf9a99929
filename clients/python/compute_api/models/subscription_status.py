from enum import StrEnum


class SubscriptionStatus(StrEnum):
    ACTIVE = "active"
    CANCELED = "canceled"
    PAST_DUE = "past_due"
    PENDING = "pending"

    def __str__(self) -> str:
        return str(self.value)
