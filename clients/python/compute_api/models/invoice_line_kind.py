from enum import StrEnum


class InvoiceLineKind(StrEnum):
    CREDIT = "credit"
    USAGE = "usage"

    def __str__(self) -> str:
        return str(self.value)
