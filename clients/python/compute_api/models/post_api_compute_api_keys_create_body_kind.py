from enum import StrEnum


class PostApiComputeApiKeysCreateBodyKind(StrEnum):
    AGENT = "agent"
    USER = "user"

    def __str__(self) -> str:
        return str(self.value)
