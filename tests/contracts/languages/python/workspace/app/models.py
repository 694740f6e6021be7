from .core import Base, helper
from . import util


class User(Base):
    def save(self):
        helper()
        self.audit()
        util.log('x')
        super().save()

    def audit(self):
        pass


class Admin(User):
    class Meta:
        ordering = "name"

    @staticmethod
    def make():
        return Admin()
