from enum import StrEnum


class SseLogEventEvent(StrEnum):
    END = "end"
    LOG = "log"
    LOG_TRUNCATED = "log.truncated"

    def __str__(self) -> str:
        return str(self.value)
