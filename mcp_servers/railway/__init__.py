"""`railway`: a national railway (stations, trains, timetables, seats, fares, passengers, bookings)."""
