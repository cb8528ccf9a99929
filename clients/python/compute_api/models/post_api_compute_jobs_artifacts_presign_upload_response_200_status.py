from enum import StrEnum


class PostApiComputeJobsArtifactsPresignUploadResponse200Status(StrEnum):
    OK = "OK"

    def __str__(self) -> str:
        return str(self.value)
