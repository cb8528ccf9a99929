from enum import StrEnum


class GetV0JobsIdLogsResponse200LinesItemStream(StrEnum):
    STDERR = "stderr"
    STDOUT = "stdout"
    SYSTEM = "system"

    def __str__(self) -> str:
        return str(self.value)
