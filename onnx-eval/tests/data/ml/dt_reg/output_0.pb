BvariableJP!vม/ฝCบrnร!vม!vมแฅีย!vมC๘kBผu9CบrnรuุBผu9Cผu9CแฅียC๘kBuุBcรผu9C
ะมKz4ร