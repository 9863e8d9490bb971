"""Web Push to the players' devices (VAPID, ``pywebpush``): their subscriptions, and the sending
of a notice to all devices of some users. What a notice says and when it is sent is decided by
the apps that send it (``games.services.notices``, ``wallet.withdrawals``)."""
