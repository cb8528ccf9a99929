from enum import StrEnum


class PatchV0WorkspacesIdMembersUserIdBodyRole(StrEnum):
    ADMIN = "admin"
    MEMBER = "member"
    OWNER = "owner"

    def __str__(self) -> str:
        return str(self.value)
