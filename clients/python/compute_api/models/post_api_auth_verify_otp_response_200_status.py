from enum import StrEnum


class PostApiAuthVerifyOtpResponse200Status(StrEnum):
    OK = "OK"

    def __str__(self) -> str:
        return str(self.value)
