from enum import StrEnum


class AuditEntryActorType(StrEnum):
    KEY = "key"
    NODE = "node"
    SYSTEM = "system"
    TOKEN = "token"
    USER = "user"

    def __str__(self) -> str:
        return str(self.value)
