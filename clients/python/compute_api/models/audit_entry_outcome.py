from enum import StrEnum


class AuditEntryOutcome(StrEnum):
    DENIED = "denied"
    SUCCESS = "success"

    def __str__(self) -> str:
        return str(self.value)
