from enum import StrEnum


class SubscriptionPlan(StrEnum):
    ENTERPRISE = "enterprise"
    HOBBY = "hobby"
    PAYG = "payg"
    TEAM = "team"

    def __str__(self) -> str:
        return str(self.value)
