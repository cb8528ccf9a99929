from enum import StrEnum


class ErrorEnvelopeStatus(StrEnum):
    ERROR = "ERROR"

    def __str__(self) -> str:
        return str(self.value)
