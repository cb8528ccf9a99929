from enum import StrEnum


class PutApiComputeArtifactsUploadJobIdIdResponse200Status(StrEnum):
    OK = "OK"

    def __str__(self) -> str:
        return str(self.value)
