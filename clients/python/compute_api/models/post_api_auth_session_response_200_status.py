from enum import StrEnum


class PostApiAuthSessionResponse200Status(StrEnum):
    OK = "OK"

    def __str__(self) -> str:
        return str(self.value)
