"""Who may remove shared organisation data.

Everything in an organisation is shared with its members: they read it and add to it (upload
documents, create projects and work in them). Removing it is kept to those answerable for it:

- owners and admins may delete anything of their organisation;
- a document may also be deleted by the member who uploaded it. One with no recorded uploader
  (ingested from the command line or the demo, or whose uploader's account is gone) is for
  admins only. Uploading a file that is already in the library does not make one its uploader;
- a project may also be deleted by the member who created it;
- an entity of a project (goal, risk, task…) by the project's creator or the entity's own;
- a link by anyone who may delete one of its ends (deleting that end hides the link anyway).

FAQ entries and invitations are admin-only altogether (their routes take ``AdminDep``);
conversations are personal (another member's is not found). A refusal is ``PermissionDenied``
(403): the caller can see the thing, so a 404 would be a lie."""

from __future__ import annotations

from uuid import UUID

from regintel.api.accounts.store import Principal
from regintel.api.errors import PermissionDenied
from regintel.domain.documents import Document
from regintel.domain.ontology import Entity

ADMIN_ROLES = frozenset({"owner", "admin"})
_HINT = "ask an owner or admin of your organisation"


def is_admin(principal: Principal) -> bool:
    return principal.role in ADMIN_ROLES


def _made_by(principal: Principal, author: UUID | None) -> bool:
    # No recorded author never matches: only admins may remove such rows.
    return author is not None and author == principal.user_id


def _creator(entity: Entity) -> UUID | None:
    created_by = entity.data.get("created_by")
    return created_by if isinstance(created_by, UUID) else None


def may_delete_document(principal: Principal, document: Document) -> None:
    if not (is_admin(principal) or _made_by(principal, document.uploaded_by)):
        raise PermissionDenied("only an owner or admin, or the member who uploaded it, may "
                               "delete this document", hint=_HINT)


def manages_project(principal: Principal, project: Entity) -> bool:
    return is_admin(principal) or _made_by(principal, _creator(project))


def may_delete_project(principal: Principal, project: Entity) -> None:
    if not manages_project(principal, project):
        raise PermissionDenied("only an owner or admin, or the member who created it, may "
                               "delete this project", hint=_HINT)


def may_delete_entity(principal: Principal, project: Entity, entity: Entity) -> None:
    if not (manages_project(principal, project) or _made_by(principal, _creator(entity))):
        raise PermissionDenied("only an owner or admin, the project's creator or the member "
                               "who created it may delete this entry", hint=_HINT)


def may_unlink(principal: Principal, project: Entity, ends: list[Entity | None]) -> None:
    """``ends``: the link's two ends as found (None for an end already deleted)."""
    if manages_project(principal, project):
        return
    if not any(end is not None and _made_by(principal, _creator(end)) for end in ends):
        raise PermissionDenied("only an owner or admin, the project's creator or the creator "
                               "of one of its ends may remove this link", hint=_HINT)
