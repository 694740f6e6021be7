from app.models import User


def test_user():
    User().save()
