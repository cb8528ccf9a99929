from enum import StrEnum


class PostApiComputeJobsArtifactsPresignUploadResponse200PayloadMethod(StrEnum):
    GET = "GET"
    PUT = "PUT"

    def __str__(self) -> str:
        return str(self.value)
