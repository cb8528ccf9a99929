from enum import StrEnum


class PostApiComputeApiKeysListResponse200PayloadKeysItemKind(StrEnum):
    AGENT = "agent"
    NODE = "node"
    USER = "user"

    def __str__(self) -> str:
        return str(self.value)
