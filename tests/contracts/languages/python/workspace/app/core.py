import requests


class Base:
    def save(self):
        self.saved = True


def helper():
    return 1
