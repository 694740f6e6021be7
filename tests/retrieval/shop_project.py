"""The small shop project the retrieval tests search: a cart that uses a discount, prices, a mailer."""

SHOP = {
    "shop/__init__.py": "",
    "shop/cart.py": ("from shop.pricing import apply_discount\n\n\nclass Cart:\n"
                     "    def checkout_total(self, items):\n        return apply_discount(sum(items))\n"),
    "shop/pricing.py": ("def apply_discount(amount):\n    \"\"\"Ten percent off above one hundred.\"\"\"\n"
                        "    return amount * 0.9 if amount > 100 else amount\n\n\n"
                        "def round_cents(value):\n    return round(value, 2)\n"),
    "shop/mailer.py": ("import smtplib\n\n\ndef send_receipt(address, body):\n"
                       "    with smtplib.SMTP('localhost') as smtp:\n        smtp.sendmail('shop@x', [address], body)\n"),
}
