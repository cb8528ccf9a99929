from enum import StrEnum


class GetV0JobsIdLogsFollow(StrEnum):
    FALSE = "false"
    TRUE = "true"

    def __str__(self) -> str:
        return str(self.value)
