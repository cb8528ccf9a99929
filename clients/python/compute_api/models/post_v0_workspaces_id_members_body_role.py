from enum import StrEnum


class PostV0WorkspacesIdMembersBodyRole(StrEnum):
    ADMIN = "admin"
    MEMBER = "member"
    OWNER = "owner"

    def __str__(self) -> str:
        return str(self.value)
