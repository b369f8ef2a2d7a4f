"""The table service's HTTP and WebSocket interface, by role: ``table_routes`` (the table enters events),
``director_routes`` (corrections, rulings, the log, exports, evidence), ``public_routes`` (the views and the pages
everyone may open), ``live`` (the WebSocket hub). ``auth`` gives each request its role by token; ``privacy`` keeps
hidden cards out of what the other roles see; ``models`` are the request bodies. ``referee.app`` joins them."""
