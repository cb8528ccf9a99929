from enum import StrEnum


class PostApiComputeJobsArtifactsPresignDownloadResponse200PayloadMethod(StrEnum):
    GET = "GET"
    PUT = "PUT"

    def __str__(self) -> str:
        return str(self.value)
