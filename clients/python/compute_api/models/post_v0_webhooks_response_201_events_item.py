from enum import StrEnum


class PostV0WebhooksResponse201EventsItem(StrEnum):
    JOB_CREATED = "job.created"
    JOB_TERMINAL = "job.terminal"
    JOB_TRANSITIONED = "job.transitioned"

    def __str__(self) -> str:
        return str(self.value)
