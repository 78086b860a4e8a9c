# Writes the throwaway project behind pytest.txt into the current
# directory: 466 tests in 8 files, one failing (a discount applied twice)
# and one skipped. Then: python3 -m pytest -v -p no:cacheprovider
import os
import random
random.seed(3)
os.makedirs('tests', exist_ok=True)
open('pytest.ini', 'w').write('[pytest]\npythonpath = .\n')
open('inventory.py', 'w').write('''"""A tiny inventory model used to produce a realistic pytest run."""


class OutOfStock(Exception):
    pass


class Inventory:
    def __init__(self):
        self.items = {}

    def add(self, name, qty):
        if qty < 0:
            raise ValueError("qty must be >= 0")
        self.items[name] = self.items.get(name, 0) + qty

    def remove(self, name, qty):
        have = self.items.get(name, 0)
        if qty > have:
            raise OutOfStock(name)
        self.items[name] = have - qty

    def total(self):
        return sum(self.items.values())

    def price(self, name, unit, discount=0.0):
        # bug: applies the discount twice
        return round(self.items.get(name, 0) * unit * (1 - discount) * (1 - discount), 2)
''')
for f in range(8):
    out = ['import pytest', 'from inventory import Inventory, OutOfStock', '']
    for i in range(45):
        a, b = random.randint(0, 99), random.randint(0, 99)
        out.append(f'def test_add_{f}_{i}():\n    inv = Inventory()\n    inv.add("bolt", {a})\n    inv.add("bolt", {b})\n    assert inv.total() == {a+b}\n')
    out.append(f'@pytest.mark.parametrize("qty", range(12))\ndef test_remove_{f}(qty):\n    inv = Inventory()\n    inv.add("nut", 20)\n    inv.remove("nut", qty)\n    assert inv.total() == 20 - qty\n')
    out.append(f'def test_out_of_stock_{f}():\n    inv = Inventory()\n    with pytest.raises(OutOfStock):\n        inv.remove("nut", 1)\n')
    if f == 5:
        out.append('def test_price_with_discount():\n    inv = Inventory()\n    inv.add("washer", 10)\n    price = inv.price("washer", 2.5, discount=0.2)\n    assert price == 20.0\n')
    if f == 2:
        out.append('@pytest.mark.skip(reason="needs a database")\ndef test_persist():\n    pass\n')
    open(f'tests/test_inv_{f}.py', 'w').write('\n'.join(out))
