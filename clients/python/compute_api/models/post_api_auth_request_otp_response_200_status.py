from enum import StrEnum


class PostApiAuthRequestOtpResponse200Status(StrEnum):
    OK = "OK"

    def __str__(self) -> str:
        return str(self.value)
