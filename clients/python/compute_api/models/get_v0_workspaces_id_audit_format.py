from enum import StrEnum


class GetV0WorkspacesIdAuditFormat(StrEnum):
    JSON = "json"
    JSONL = "jsonl"

    def __str__(self) -> str:
        return str(self.value)
